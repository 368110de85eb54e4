/// The page's fixed style sheet and script. Neither contains anything from the data: the data travels in a
/// `<script type="application/json">` block that the script parses, and the script writes it into the page only
/// through `textContent` and attribute setters, never as markup.
///
/// The script is plain ES2017 and, like the style sheet, refers to nothing outside the page (no URL, import, font
/// or image). Its SHA-256 goes into the page's Content-Security-Policy (`script-src 'sha256-…'`), which with
/// `default-src 'none'` also forbids any network access.
enum MapAssets {
    static let style = """
        *{box-sizing:border-box}
        html,body{margin:0;height:100%}
        body{display:flex;height:100vh;overflow:hidden;font:14px/1.4 system-ui,"DejaVu Sans","Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d2733;background:#fff}
        #pane{position:relative;flex:1 1 auto;min-width:0;background:#cddfec}
        #map{width:100%;height:100%;display:block;touch-action:none;cursor:grab;user-select:none;-webkit-user-select:none}
        #map.drag{cursor:grabbing}
        #map .grid{stroke:#8a9aa8;stroke-opacity:.18;stroke-width:1;vector-effect:non-scaling-stroke;fill:none}
        #map .sea{fill:#cddfec}
        #map .land{fill:#f4f2ec;fill-rule:evenodd;stroke:none}
        #map .lake{fill:#cddfec;fill-rule:evenodd;stroke:#7fa3bf;stroke-width:.6;vector-effect:non-scaling-stroke}
        #map .coast{fill:none;stroke:#7fa3bf;stroke-width:1;vector-effect:non-scaling-stroke;stroke-linejoin:round}
        #map .border{fill:none;stroke:#a08ea6;stroke-width:1.2;vector-effect:non-scaling-stroke;stroke-linejoin:round}
        #map.tiled #base,#map.tiled #cities,#map.tiled .grid{display:none}
        #tiles image{pointer-events:none}
        #cities text{fill:#4a5661;stroke:#fff;stroke-opacity:.9;stroke-linejoin:round;paint-order:stroke;text-anchor:middle;pointer-events:none;white-space:pre}
        #cities .c1{font-weight:600;fill:#2f3a44}
        #cities .c3{fill:#5f6b75}
        #map path.trip{fill:none;stroke-width:2.4;stroke-linecap:round;stroke-linejoin:round;vector-effect:non-scaling-stroke;stroke-opacity:.8}
        #map path.s{stroke-dasharray:6 5;stroke-width:1.6}
        #map circle{fill:#c0392b;fill-opacity:.22;stroke:#96281b;stroke-opacity:.8;stroke-width:1;vector-effect:non-scaling-stroke}
        #map .hl path.trip{stroke-width:5;stroke-opacity:1}
        #map circle.hl{fill-opacity:.6;stroke-width:2}
        #labels text{fill:#14202b;stroke:#fff;stroke-linejoin:round;paint-order:stroke;font-weight:600;pointer-events:none}
        #map .empty{fill:#5b6770}
        .box{position:absolute;background:rgba(255,255,255,.94);border-radius:6px;box-shadow:0 1px 4px rgba(0,0,0,.25);padding:7px 10px;font-size:13px}
        #legend{left:12px;bottom:12px;max-width:260px}
        #legend.right{left:auto;right:12px}
        #legend b{display:block;margin-bottom:2px}
        #legend div{display:flex;align-items:center;gap:7px;white-space:nowrap}
        .ln{display:inline-block;width:22px;height:4px;border-radius:2px}
        .dot{display:inline-block;width:12px;height:12px;border-radius:50%;background:rgba(192,57,43,.3);border:1px solid #96281b;margin:0 5px}
        .dash{display:inline-block;width:22px;border-top:2px dashed #555}
        #scale{left:12px;top:12px;display:flex;align-items:center;gap:8px}
        #scalebar{height:8px;border:2px solid #1d2733;border-top:none}
        #north{right:12px;top:12px;text-align:center;padding:4px 8px;line-height:1}
        #zoom{right:12px;top:70px;display:flex;flex-direction:column;gap:4px;padding:4px}
        #zoom button[data-z=all]{font-size:11px;font-weight:600}
        #zoom button{width:30px;height:30px;font-size:18px;border:1px solid #b8c2cc;background:#fff;border-radius:4px;cursor:pointer;padding:0}
        #tip{pointer-events:none;max-width:380px;z-index:5}
        #tip div{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
        #attribution{left:50%;bottom:6px;transform:translateX(-50%);font-size:10px;padding:1px 6px;color:#5b6770;white-space:nowrap}
        #tip div:first-child{font-weight:600}
        #side{flex:0 0 390px;overflow-y:auto;padding:14px 18px;border-left:1px solid #d5dbe1}
        h1{font-size:20px;margin:0 0 2px}
        h2{font-size:14px;margin:16px 0 6px;color:#46525c;text-transform:uppercase;letter-spacing:.04em}
        .sub{color:#5b6770;margin:0 0 10px;overflow-wrap:normal;word-break:normal}
        #picker{display:flex;gap:6px;align-items:center;flex-wrap:wrap}
        #picker select{font:inherit;padding:2px 4px}
        .stats{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin:12px 0 0}
        .stats div{background:#f3f6f8;border-radius:6px;padding:6px 10px}
        .stats dt{font-size:12px;color:#5b6770}
        .stats dd{margin:0;font-size:19px;font-weight:600}
        table.modes{border-collapse:collapse;width:100%}
        table.modes td{padding:2px 4px}
        table.modes td:nth-child(n+2){text-align:right;white-space:nowrap}
        .sw{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;vertical-align:-1px}
        ol.places{margin:0;padding-left:22px}
        ol.places li{margin:2px 0}
        .pn{font-weight:600;display:inline-block;max-width:100%;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;vertical-align:bottom}
        .pv{color:#5b6770;margin-left:6px;white-space:nowrap}
        #chart{width:100%;height:auto;display:block}
        #chart rect.bar{fill:#4a7fb5;cursor:pointer}
        #chart rect.bar:hover,#chart rect.sel{fill:#e07b00}
        #chart text{font-size:10px;fill:#5b6770}
        #chart line{stroke:#9aa5ae;stroke-width:1}
        .nothing{background:#fff6e0;border:1px solid #f0d28a;border-radius:6px;padding:8px 10px}
        h3.tday{font-size:13px;margin:12px 0 4px}
        ol.tl{list-style:none;margin:0 0 0 5px;padding:0;border-left:2px solid #d5dbe1}
        ol.tl li{display:grid;grid-template-columns:96px minmax(0,1fr);column-gap:6px;padding:3px 6px 3px 9px;border-radius:0 4px 4px 0}
        ol.tl{content-visibility:auto;contain-intrinsic-size:auto 240px}
        ol.tl li.go{cursor:pointer}
        ol.tl li.go:hover,ol.tl li.on{background:#eef3f7}
        ol.tl li.on{box-shadow:inset 3px 0 0 #e07b00}
        .tw{color:#5b6770;white-space:nowrap;font-variant-numeric:tabular-nums}
        .tn,.tg{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
        .tv .tn{font-weight:600}
        .tx .tn{color:#5b6770;font-style:italic}
        .gd{display:inline-block;width:10px;height:0;border-top:2px dotted #8a96a0;margin-right:6px;vertical-align:3px}
        .tg{grid-column:2;color:#5b6770;font-size:12px}
        .vd{display:inline-block;width:10px;height:10px;border-radius:50%;background:rgba(192,57,43,.3);border:1px solid #96281b;margin-right:6px;vertical-align:-1px}
        @media (max-width:760px){body{flex-direction:column}#pane{flex:0 0 52%}#side{flex:1 1 auto;min-height:0;border-left:none;border-top:1px solid #d5dbe1}
          #legend,#legend.right{left:12px;right:12px;bottom:24px;max-width:none;display:flex;flex-wrap:wrap;gap:0 12px;font-size:12px;padding:4px 8px}#legend b{display:none}}
        """

    /// The timeline (`timeline()`): a picked day's list comes first, under the pickers, a longer period's after the
    /// summary and chart; it is built in one document fragment with one click listener for all entries (a year's list
    /// has thousands). The script holds no comments: the page must not contain `//` (``MapPageTests``).
    static let script = #"""
        (function(){"use strict";
        var D=JSON.parse(document.getElementById("data").textContent);
        var svg=document.getElementById("map");
        var V=D.view,U=V[2]*V[3],W=V[4]*V[3],H=V[5]*V[3];
        var vb={x:0,y:0,w:W,h:H};
        var labels=document.getElementById("labels"),cityG=document.getElementById("cities"),tileG=document.getElementById("tiles");
        var circles=Array.prototype.slice.call(svg.querySelectorAll("circle[data-v]"));
        var R0=circles.map(function(c){return +c.getAttribute("r");});
        var trips=Array.prototype.slice.call(svg.querySelectorAll("g[data-t]"));
        var tip=document.getElementById("tip"),pane=document.getElementById("pane");
        var bar=document.getElementById("scalebar"),blabel=document.getElementById("scalelabel");
        var NS=svg.namespaceURI;
        function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
        function sel(tag,attrs){var e=document.createElementNS(NS,tag);for(var k in attrs)e.setAttribute(k,attrs[k]);return e;}
        function grp(n){var s=String(Math.abs(n)),o="";for(var i=0;i<s.length;i++){if(i>0&&(s.length-i)%3===0)o+="\u202F";o+=s[i];}return (n<0?"-":"")+o;}
        function dist(m){if(m<1000)return Math.round(m)+" m";if(m<100000)return (m/1000).toFixed(1)+" km";return grp(Math.round(m/1000))+" km";}
        function dur(s){s=Math.round(Math.max(0,s));if(s<60)return s+" s";var mi=Math.floor((s+30)/60);if(mi<60)return mi+" min";var m=mi%60;return grp(Math.floor(mi/60))+" h "+(m<10?"0":"")+m+" min";}
        function iso(s){return new Date(s*1000).toISOString();}
        function dayStr(d){return iso(d*86400).slice(0,10);}
        function off(o){var a=Math.abs(o),h=Math.floor(a/3600),m=Math.floor(a/60)%60;return "UTC"+(o<0?"\u2212":"+")+(h<10?"0":"")+h+":"+(m<10?"0":"")+m;}
        function span(a,b){var x=iso(a),y=iso(b);return x.slice(0,10)+" "+x.slice(11,16)+" \u2192 "+(y.slice(0,10)===x.slice(0,10)?"":y.slice(0,10)+" ")+y.slice(11,16);}
        function mercLat(y){return Math.atan(Math.sinh(Math.PI*(1-2*y)))*180/Math.PI;}
        function mpu(){var cy=V[1]+(vb.y+vb.h/2)/U;return 2*Math.PI*6371008.8*Math.cos(mercLat(cy)*Math.PI/180)/U;}
        function scalebar(){
          var c=svg.getScreenCTM();if(!c||!bar)return;var ppu=c.a,m=mpu();
          var max=120/ppu*m,p=Math.pow(10,Math.floor(Math.log(max)/Math.LN10)),n=p;
          if(5*p<=max)n=5*p;else if(2*p<=max)n=2*p;
          bar.style.width=(n/m*ppu).toFixed(1)+"px";blabel.textContent=n>=1000?(n/1000)+" km":n+" m";
        }
        var range=[-1e9,1e9],dev=-1;
        function inRange(d){return d>=range[0]&&d<=range[1];}
        function tripOn(r){return inRange(r[0])&&(dev<0||r[12]===dev);}
        function visitOn(q){return inRange(q[0])&&(dev<0||q[5]===dev);}
        var canvas=document.createElement("canvas").getContext("2d");
        var FONT=getComputedStyle(document.body).fontFamily;
        function textWidth(t,px,bold){canvas.font=(bold?"600 ":"")+px+"px "+FONT;return canvas.measureText(t).width;}
        function shortName(n){n=String(n).trim();if(!n)n="unnamed place";var a=Array.from(n);return a.length>32?a.slice(0,31).join("")+"\u2026":n;}
        var placeR={};circles.forEach(function(c,i){var p=D.vs[+c.getAttribute("data-v")][4];if(p>=0)placeR[p]=Math.max(placeR[p]||0,R0[i]);});
        function clear(g){while(g&&g.firstChild)g.removeChild(g.firstChild);}
        function relabel(){
          var c=svg.getScreenCTM();if(!c)return;var r=svg.getBoundingClientRect(),ppu=c.a,k=W/vb.w;
          function sx(x){return c.a*x+c.e-r.left;}function sy(y){return c.d*y+c.f-r.top;}
          function ux(px){return (px+r.left-c.e)/c.a;}function uy(py){return (py+r.top-c.f)/c.d;}
          var taken=[];
          ["scale","north","zoom","legend","attribution"].forEach(function(id){var e=document.getElementById(id);if(!e||e.offsetParent===null)return;var b=e.getBoundingClientRect();taken.push([b.left-r.left-4,b.top-r.top-4,b.right-r.left+4,b.bottom-r.top+4]);});
          function free(b){if(b[0]<0||b[1]<0||b[2]>r.width||b[3]>r.height)return false;for(var i=0;i<taken.length;i++){var t=taken[i];if(b[0]<t[2]&&t[0]<b[2]&&b[1]<t[3]&&t[1]<b[3])return false;}return true;}
          var base=10/ppu;
          [labels,cityG].forEach(function(g){if(g){g.setAttribute("font-size",base);g.setAttribute("stroke-width",3/ppu);}});
          var pl={};D.vs.forEach(function(q){if(!visitOn(q)||q[4]<0)return;var e=pl[q[4]]||(pl[q[4]]=[0,0]);e[0]++;e[1]+=q[2]-q[1];});
          var ps=Object.keys(pl).map(Number).sort(function(a,b){return pl[b][0]-pl[a][0]||pl[b][1]-pl[a][1]||a-b;});
          var marks=[];ps.forEach(function(p){var x=sx(D.pxy[2*p]),y=sy(D.pxy[2*p+1]),rr=(placeR[p]||10)/k*ppu;marks.push([x-rr,y-rr,x+rr,y+rr]);});
          if(labels){clear(labels);
            var placed=0,font=12,asc=font*0.8,desc=font*0.25;
            for(var i=0;i<ps.length&&placed<D.labels;i++){
              var p=ps[i],x=sx(D.pxy[2*p]),y=sy(D.pxy[2*p+1]),rr=(placeR[p]||10)/k*ppu+3,t=shortName(D.places[p]),w=textWidth(t,font,true);
              if(x<0||y<0||x>r.width||y>r.height)continue;
              var cand=[[x+rr,y+asc/2-desc/2,"start"],[x-rr,y+asc/2-desc/2,"end"],[x,y-rr-desc,"middle"],[x,y+rr+asc,"middle"],[x+rr*0.7,y-rr*0.7-desc,"start"],[x-rr*0.7,y-rr*0.7-desc,"end"],[x+rr*0.7,y+rr*0.7+asc,"start"],[x-rr*0.7,y+rr*0.7+asc,"end"]];
              for(var j=0;j<cand.length;j++){
                var a=cand[j],left=a[2]==="start"?a[0]:a[2]==="end"?a[0]-w:a[0]-w/2,b=[left-1,a[1]-asc-1,left+w+1,a[1]+desc+1];
                if(!free(b))continue;var hit=false;for(var m=0;m<marks.length;m++){if(m!==i){var q=marks[m];if(b[0]<q[2]&&q[0]<b[2]&&b[1]<q[3]&&q[1]<b[3]){hit=true;break;}}}
                if(hit)continue;taken.push(b);placed++;
                var e=sel("text",{x:D.pxy[2*p],y:D.pxy[2*p+1],dx:((a[0]-x)/font).toFixed(2)+"em",dy:((a[1]-y)/font).toFixed(2)+"em","font-size":"1.2em","data-p":p});
                if(a[2]!=="start")e.setAttribute("text-anchor",a[2]);e.textContent=t;labels.appendChild(e);break;
              }
            }
            marks.forEach(function(q){taken.push(q);});
          }
          if(cityG){clear(cityG);
            if(svg.classList.contains("tiled"))return;
            var km=r.width/ppu*mpu()/1000,min=km>5000?5e5:km>1800?1e5:km>600?2e4:km>200?5000:1000,n=0;
            var C=D.cities;
            for(var i=0;i+3<C.length&&n<30;i+=4){
              if(C[i+3]<min)break;
              var x=sx(C[i+1]),y=sy(C[i+2]);if(x<-50||y<-50||x>r.width+50||y>r.height+50)continue;
              var big=C[i+3]>=1e6,mid=C[i+3]>=1e5,font=big?14:mid?12.5:11,t=C[i],w=textWidth(t,font,big);
              var b=[x-w/2-6,y-font*0.55-3,x+w/2+6,y+font*0.45+3];
              if(!free(b))continue;taken.push(b);n++;
              var e=sel("text",{x:C[i+1],y:C[i+2],dy:"0.35em","font-size":(font/10)+"em","class":big?"c1":mid?"c2":"c3"});
              e.textContent=t;cityG.appendChild(e);
            }
          }
        }
        var tileCache={};
        function tiles(){
          if(!tileG||!D.tiles)return;var c=svg.getScreenCTM();if(!c)return;
          var r=svg.getBoundingClientRect(),a=toSvg(r.left,r.top),b=toSvg(r.right,r.bottom),ppw=c.a*U;
          var z=Math.max(0,Math.min(19,Math.round(Math.log(ppw/256)/Math.LN2))),n=Math.pow(2,z);
          var x0=Math.floor((V[0]+a.x/U)*n),x1=Math.floor((V[0]+b.x/U)*n),y0=Math.max(0,Math.floor((V[1]+a.y/U)*n)),y1=Math.min(n-1,Math.floor((V[1]+b.y/U)*n));
          var want={};
          if((x1-x0+1)*(y1-y0+1)<=120){for(var tx=x0;tx<=x1;tx++)for(var ty=y0;ty<=y1;ty++){
            var key=z+"/"+tx+"/"+ty;want[key]=1;if(tileCache[key])continue;
            var url=D.tiles.replace("{z}",z).replace("{x}",((tx%n)+n)%n).replace("{y}",ty);
            var im=sel("image",{x:(tx/n-V[0])*U,y:(ty/n-V[1])*U,width:U/n,height:U/n,preserveAspectRatio:"none"});
            im.setAttribute("href",url);tileG.appendChild(im);tileCache[key]=im;}}
          Object.keys(tileCache).forEach(function(k){if(!want[k]){tileG.removeChild(tileCache[k]);delete tileCache[k];}});
        }
        var timer=0;
        function apply(now){
          svg.setAttribute("viewBox",vb.x+" "+vb.y+" "+vb.w+" "+vb.h);
          var k=W/vb.w,c=svg.getScreenCTM(),ppu=c?c.a:1/V[3];
          [labels,cityG].forEach(function(g){if(g){g.setAttribute("font-size",10/ppu);g.setAttribute("stroke-width",3/ppu);}});
          for(var i=0;i<circles.length;i++)circles[i].setAttribute("r",R0[i]/k);
          scalebar();tiles();
          if(timer)clearTimeout(timer);
          if(now)relabel();else timer=setTimeout(function(){timer=0;relabel();},120);
        }
        function toSvg(cx,cy){var p=svg.createSVGPoint();p.x=cx;p.y=cy;return p.matrixTransform(svg.getScreenCTM().inverse());}
        function zoomAt(cx,cy,f,now){
          var w=Math.min(W*4096,Math.max(W/128,vb.w/f));f=vb.w/w;var p=toSvg(cx,cy);
          vb.x=p.x-(p.x-vb.x)/f;vb.y=p.y-(p.y-vb.y)/f;vb.w/=f;vb.h/=f;apply(now);
        }
        function zoomCentre(f,now){var r=svg.getBoundingClientRect();zoomAt(r.left+r.width/2,r.top+r.height/2,f,now);}
        function fitBox(b,now){
          if(!b||!(b.width>=0)){vb={x:0,y:0,w:W,h:H};apply(now);return;}
          var m=Math.max(b.width,b.height*W/H,W/200)*0.08,w=Math.max(b.width+2*m,(b.height+2*m)*W/H,W/200),h=w*H/W;
          vb={x:b.x+b.width/2-w/2,y:b.y+b.height/2-h/2,w:w,h:h};apply(now);
        }
        function fitAll(now){var a=D.all;fitBox({x:a[0],y:a[1],width:a[2]-a[0],height:a[3]-a[1]},now);}
        var drag=null,pinned=false;
        svg.addEventListener("wheel",function(e){e.preventDefault();zoomAt(e.clientX,e.clientY,Math.exp(-e.deltaY*(e.deltaMode===1?0.05:0.002)));},{passive:false});
        svg.addEventListener("dblclick",function(e){e.preventDefault();zoomAt(e.clientX,e.clientY,2);});
        var touches={},pinch=0;
        function spread(){var k=Object.keys(touches);if(k.length!==2)return null;var a=touches[k[0]],b=touches[k[1]];return {d:Math.hypot(a.x-b.x,a.y-b.y),x:(a.x+b.x)/2,y:(a.y+b.y)/2};}
        svg.addEventListener("pointerdown",function(e){
          if(e.pointerType==="touch"){touches[e.pointerId]={x:e.clientX,y:e.clientY};var s=spread();if(s){drag=null;pinch=s.d;hide();return;}}
          if(e.button!==0)return;drag={x:e.clientX,y:e.clientY,vx:vb.x,vy:vb.y,ppu:svg.getScreenCTM().a,moved:false,target:e.target,id:e.pointerId};
        });
        function untouch(e){delete touches[e.pointerId];if(Object.keys(touches).length<2)pinch=0;}
        svg.addEventListener("pointerup",untouch);svg.addEventListener("pointercancel",untouch);
        svg.addEventListener("pointermove",function(e){
          if(touches[e.pointerId]){touches[e.pointerId]={x:e.clientX,y:e.clientY};if(pinch){var s=spread();if(s&&s.d>0){zoomAt(s.x,s.y,s.d/pinch);pinch=s.d;}return;}}
          if(drag&&drag.id===e.pointerId){
            var dx=e.clientX-drag.x,dy=e.clientY-drag.y;
            if(!drag.moved&&dx*dx+dy*dy>16){drag.moved=true;svg.classList.add("drag");try{svg.setPointerCapture(e.pointerId);}catch(x){}hide();}
            if(drag.moved){vb.x=drag.vx-dx/drag.ppu;vb.y=drag.vy-dy/drag.ppu;apply();}
            return;
          }
          if(!pinned&&e.pointerType==="mouse")show(e.target,e);
        });
        function end(e){
          if(!drag||drag.id!==e.pointerId)return;
          var d=drag;drag=null;svg.classList.remove("drag");
          if(!d.moved){if(show(d.target,e))pinned=true;else{pinned=false;hide();}}
        }
        svg.addEventListener("pointerup",end);svg.addEventListener("pointercancel",function(e){drag=null;svg.classList.remove("drag");});
        svg.addEventListener("pointerleave",function(){if(!pinned&&!drag)hide();});
        var zb=document.getElementById("zoom");
        if(zb){zb.addEventListener("click",function(e){var a=e.target.getAttribute("data-z");if(a==="in")zoomCentre(2);else if(a==="out")zoomCentre(0.5);else if(a==="fit")fitPeriod();else if(a==="all")fitAll();});}
        var hl=null;
        function devName(i){return D.devices.length&&i>=0&&i<D.devices.length?D.devices[i]:"";}
        function hide(){tip.hidden=true;if(hl){hl.classList.remove("hl");hl=null;}}
        function lines(t){
          var g=null,v=null;
          if(t&&t.tagName==="path"&&t.parentNode.hasAttribute("data-t"))g=t.parentNode;
          if(t&&t.tagName==="circle"&&t.hasAttribute("data-v"))v=t;
          if(g){
            var r=D.t[+g.getAttribute("data-t")],modes=r[10].length?r[10].map(function(l){return D.modes[l[0]];}):[D.modes[r[7]]];
            var out=["Trip \u00b7 "+modes.join(" \u2192 "),"Device "+devName(r[12]),span(r[1],r[2])+" ("+off(r[3])+")",dist(r[4])+" \u00b7 "+dur(r[5])+" (moving "+dur(r[6])+")"];
            if(r[8]>=0||r[9]>=0)out.push((r[8]>=0?D.places[r[8]]:"?")+" \u2192 "+(r[9]>=0?D.places[r[9]]:"?"));
            if(r[11])out.push("No track recorded: straight line from start to end");
            return [g,out];
          }
          if(v){
            var q=D.vs[+v.getAttribute("data-v")];
            return [v,["Visit \u00b7 "+(q[4]>=0?D.places[q[4]]:"unnamed place"),"Device "+devName(q[5]),span(q[1],q[2])+" ("+off(q[3])+")","Stayed "+dur(q[2]-q[1])]];
          }
          return null;
        }
        function show(t,e){
          var x=lines(t);if(!x){if(!pinned)hide();return false;}
          if(hl!==x[0]){if(hl)hl.classList.remove("hl");hl=x[0];hl.classList.add("hl");}
          while(tip.firstChild)tip.removeChild(tip.firstChild);
          x[1].forEach(function(s){tip.appendChild(el("div",null,s));});
          tip.hidden=false;
          var r=pane.getBoundingClientRect(),px=e.clientX-r.left+14,py=e.clientY-r.top+14;
          if(px+tip.offsetWidth>r.width-4)px=Math.max(4,e.clientX-r.left-tip.offsetWidth-14);
          if(py+tip.offsetHeight>r.height-4)py=Math.max(4,e.clientY-r.top-tip.offsetHeight-14);
          tip.style.left=px+"px";tip.style.top=py+"px";return true;
        }
        function summary(){
          var s=document.getElementById("summary");if(!s)return;
          var distance=0,moving=0,nt=0,nv=0,bym={},pl={},dash=false;
          D.t.forEach(function(r){if(!tripOn(r))return;nt++;if(r[11])dash=true;
            var legs=r[10].length?r[10]:[[r[7],r[5],r[4]]];
            legs.forEach(function(l){var m=bym[l[0]]||(bym[l[0]]=[0,0]);m[0]+=l[1];m[1]+=l[2];});});
          D.vs.forEach(function(q){if(!visitOn(q))return;nv++;if(q[4]>=0){var p=pl[q[4]]||(pl[q[4]]=[0,0]);p[0]++;p[1]+=q[2]-q[1];}});
          D.days.forEach(function(d){if(!inRange(d[0])||(dev>=0&&d[2]!==dev))return;distance+=d[1];moving+=d[3];});
          Array.prototype.forEach.call(document.querySelectorAll("#legend [data-m]"),function(d){d.style.display=bym[d.getAttribute("data-m")]?"":"none";});
          var nd=document.getElementById("nodash");if(nd)nd.style.display=dash?"":"none";
          while(s.firstChild)s.removeChild(s.firstChild);
          if(!nt&&!nv){s.appendChild(el("p","nothing","Nothing to show for this period: no trips or visits."));return;}
          var dl=el("dl","stats");
          [["Distance",dist(distance)],["Moving time",dur(moving)],["Trips",grp(nt)],["Visits",grp(nv)]].forEach(function(p){var d=el("div");d.appendChild(el("dt",null,p[0]));d.appendChild(el("dd",null,p[1]));dl.appendChild(d);});
          s.appendChild(dl);
          var ms=Object.keys(bym).map(Number).sort(function(a,b){return bym[b][0]-bym[a][0]||a-b;});
          if(ms.length){s.appendChild(el("h2",null,"Time by mode"));var tb=el("table","modes");
            ms.forEach(function(m){var tr=el("tr"),td=el("td");td.appendChild(el("span","sw m"+m));td.appendChild(document.createTextNode(D.modes[m]));tr.appendChild(td);tr.appendChild(el("td",null,dur(bym[m][0])));tr.appendChild(el("td",null,dist(bym[m][1])));tb.appendChild(tr);});
            s.appendChild(tb);}
          var ps=Object.keys(pl).map(Number).sort(function(a,b){return pl[b][0]-pl[a][0]||pl[b][1]-pl[a][1]||a-b;}).slice(0,D.top);
          if(ps.length){s.appendChild(el("h2",null,"Top places"));var ol=el("ol","places");
            ps.forEach(function(p){var li=el("li");li.appendChild(el("span","pn",D.places[p]));li.appendChild(el("span","pv",grp(pl[p][0])+(pl[p][0]===1?" visit \u00b7 ":" visits \u00b7 ")+dur(pl[p][1])));ol.appendChild(li);});
            s.appendChild(ol);}
        }
        var chart=document.getElementById("chart");
        function drawChart(){
          if(!chart)return;
          var tot={},lo=1e9,hi=-1e9;
          D.days.forEach(function(d){if(dev>=0&&d[2]!==dev)return;if(range[0]>-1e8&&(d[0]<cr[0]||d[0]>cr[1]))return;tot[d[0]]=(tot[d[0]]||0)+d[1];lo=Math.min(lo,d[0]);hi=Math.max(hi,d[0]);});
          if(range[0]>-1e8){lo=cr[0];hi=cr[1];}
          clear(chart);
          var width=350,height=130,top=14,bottom=18;
          if(hi<lo){chart.appendChild(sel("text",{x:0,y:10})).textContent="no distance in this period";return;}
          var count=hi-lo+1,slot=width/count,bw=Math.max(0.4,slot*(slot>3?0.8:1)),max=1;
          Object.keys(tot).forEach(function(d){max=Math.max(max,tot[d]);});
          chart.appendChild(sel("line",{x1:0,y1:height-bottom,x2:width,y2:height-bottom}));
          chart.appendChild(sel("text",{x:0,y:10})).textContent="max "+dist(max);
          Object.keys(tot).map(Number).sort(function(a,b){return a-b;}).forEach(function(d){
            var h=Math.max(tot[d]>0?1:0,tot[d]/max*(height-top-bottom)),x=(d-lo)*slot+(slot-bw)/2;
            var rc=sel("rect",{"class":"bar"+(inRange(d)&&range[0]>-1e8&&range[0]===range[1]?" sel":""),"data-d":d,x:x.toFixed(2),y:(height-bottom-h).toFixed(2),width:bw.toFixed(2),height:h.toFixed(2)});
            rc.appendChild(sel("title",{})).textContent=dayStr(d)+": "+dist(tot[d]);chart.appendChild(rc);
          });
          if(hi-lo>=45){var names=["Jan","Feb","Mar","Apr","May","Jun","Jul","Aug","Sep","Oct","Nov","Dec"];
            for(var d=lo;d<=hi;d++){var s=dayStr(d);if(s.slice(8)!=="01")continue;var x=(d-lo)*slot;
              chart.appendChild(sel("line",{x1:x.toFixed(1),y1:height-bottom,x2:x.toFixed(1),y2:height-bottom+4}));
              if(slot*28>=22&&hi-d>=8)chart.appendChild(sel("text",{x:(x+1.5).toFixed(1),y:height-bottom+13})).textContent=names[+s.slice(5,7)-1];}
          }else{chart.appendChild(sel("text",{x:0,y:height-4})).textContent=dayStr(lo);
            if(hi!==lo)chart.appendChild(sel("text",{x:width,y:height-4,"text-anchor":"end"})).textContent=dayStr(hi);}
        }
        var tlBox=document.getElementById("timeline"),tripEl={},visitEl={},tlOn=null;
        trips.forEach(function(g){tripEl[g.getAttribute("data-t")]=g;});circles.forEach(function(c){visitEl[c.getAttribute("data-v")]=c;});
        function focusEntry(x,li){
          var t=x[0]?tripEl[x[1]]:visitEl[x[1]];if(!t)return;
          t.style.display="";var b,s=W/24;
          if(x[0]){b=t.getBBox();if(b.width<2*s){b.x-=s-b.width/2;b.width=2*s;}}
          else{var cx=+t.getAttribute("cx"),cy=+t.getAttribute("cy");b={x:cx-s,y:cy-s,width:2*s,height:2*s};}
          hide();pinned=true;fitBox(b,true);hl=t;t.classList.add("hl");
          if(tlOn)tlOn.classList.remove("on");tlOn=li;li.classList.add("on");
        }
        var tlItems=[];
        function timeline(){
          if(!tlBox)return;clear(tlBox);tlOn=null;tlItems=[];
          var side=document.getElementById("side"),sum=document.getElementById("summary");
          if(range[0]===range[1]&&sum)side.insertBefore(tlBox,sum);else side.appendChild(tlBox);
          var want=dev>=0?devName(dev):null,n=0,multi=D.tld.length>1,f=document.createDocumentFragment();
          f.appendChild(el("h2",null,"Timeline"));
          D.tl.forEach(function(day){
            if(!inRange(day[0]))return;var last=-1,ol=null;
            day[1].forEach(function(x){
              if(want!==null&&D.tld[x[2]]!==want)return;
              if(x[2]!==last){last=x[2];f.appendChild(el("h3","tday",dayStr(day[0])+(multi?" \u00b7 "+D.tld[x[2]]:"")));ol=f.appendChild(el("ol","tl"));}
              var gap=x[0]===2,li=el("li",gap?"tx":x[0]?"tt":"tv"),w=el("span","tn"),go=!gap&&!!(x[0]?tripEl:visitEl)[x[1]];
              li.appendChild(el("span","tw",x[4]));
              w.appendChild(el("span",gap?"gd":x[0]?"sw m"+x[6]:"vd"));w.appendChild(document.createTextNode(x[3]));li.appendChild(w);
              if(x[5].length)li.appendChild(el("span","tg",x[5].join(" \u00b7 ")));
              li.title=x[4]+" \u00b7 "+x[3]+(x[5].length?" ("+x[5].join(" \u00b7 ")+")":"")+(go?" \u2014 click to show on the map":"");
              if(go){li.className+=" go";li.tabIndex=0;li.setAttribute("data-k",tlItems.length);tlItems.push(x);}
              ol.appendChild(li);n++;
            });
          });
          if(!n)f.appendChild(el("p","nothing","No visits or trips on these days."));
          tlBox.appendChild(f);
        }
        function tlPick(e){var li=e.target;while(li&&li!==tlBox&&!li.hasAttribute("data-k"))li=li.parentNode;if(!li||li===tlBox)return false;focusEntry(tlItems[+li.getAttribute("data-k")],li);return true;}
        if(tlBox){tlBox.addEventListener("click",tlPick);
          tlBox.addEventListener("keydown",function(e){if((e.key==="Enter"||e.key===" ")&&tlPick(e))e.preventDefault();});}
        var cr=[-1e9,1e9];
        var msel=document.getElementById("month"),dsel=document.getElementById("day"),vsel=document.getElementById("dev");
        var dayset={};D.t.forEach(function(r){dayset[r[0]]=1;});D.vs.forEach(function(q){dayset[q[0]]=1;});D.days.forEach(function(d){dayset[d[0]]=1;});
        var alldays=Object.keys(dayset).map(Number).sort(function(a,b){return a-b;});
        function fillDays(){
          while(dsel.options.length>1)dsel.remove(1);
          var m=msel.value;dsel.disabled=!m;if(!m)return;
          alldays.forEach(function(d){var s=dayStr(d);if(s.slice(0,7)===m){var o=el("option",null,s);o.value=String(d);dsel.appendChild(o);}});
        }
        function visibleBox(){
          var b=null;function add(r){if(!b){b={x:r.x,y:r.y,x2:r.x+r.width,y2:r.y+r.height};return;}b.x=Math.min(b.x,r.x);b.y=Math.min(b.y,r.y);b.x2=Math.max(b.x2,r.x+r.width);b.y2=Math.max(b.y2,r.y+r.height);}
          trips.forEach(function(g){if(g.style.display!=="none")add(g.getBBox());});
          circles.forEach(function(c){if(c.style.display!=="none"){var cx=+c.getAttribute("cx"),cy=+c.getAttribute("cy");add({x:cx,y:cy,width:0,height:0});}});
          return b?{x:b.x,y:b.y,width:b.x2-b.x,height:b.y2-b.y}:null;
        }
        function fitPeriod(now){if(range[0]<-1e8&&range[1]>1e8&&dev<0){vb={x:0,y:0,w:W,h:H};apply(now);}else fitBox(visibleBox(),now);}
        function monthDays(m){var a=Date.UTC(+m.slice(0,4),+m.slice(5,7)-1,1)/864e5,b=Date.UTC(+m.slice(0,4),+m.slice(5,7),1)/864e5-1;return [a,b];}
        function choose(now){
          var pt=document.getElementById("period");
          dev=vsel&&vsel.value!==""?+vsel.value:-1;
          if(dsel.value){var d=+dsel.value;range=[d,d];cr=monthDays(dayStr(d).slice(0,7));pt.textContent=dayStr(d);}
          else if(msel.value){range=monthDays(msel.value);cr=range;pt.textContent=msel.value;}
          else{range=[-1e9,1e9];cr=range;pt.textContent=pt.getAttribute("data-all");}
          trips.forEach(function(g){g.style.display=tripOn(D.t[+g.getAttribute("data-t")])?"":"none";});
          circles.forEach(function(c){c.style.display=visitOn(D.vs[+c.getAttribute("data-v")])?"":"none";});
          hide();pinned=false;summary();drawChart();timeline();fitPeriod(now);
        }
        if(msel&&dsel){
          var months=[];alldays.forEach(function(d){var m=dayStr(d).slice(0,7);if(months[months.length-1]!==m)months.push(m);});
          months.forEach(function(m){var o=el("option",null,m);o.value=m;msel.appendChild(o);});
          msel.addEventListener("change",function(){fillDays();choose();});
          dsel.addEventListener("change",function(){choose();});fillDays();
          if(vsel)vsel.addEventListener("change",function(){choose();});
          if(chart)chart.addEventListener("click",function(e){var d=e.target.getAttribute&&e.target.getAttribute("data-d");if(d==null)return;d=+d;msel.value=dayStr(d).slice(0,7);fillDays();dsel.value=String(d);choose();});
        }
        if(D.tiles)svg.classList.add("tiled");
        window.addEventListener("resize",function(){apply();});
        apply(true);timeline();
        var hash={};location.hash.slice(1).split("&").forEach(function(p){if(!p)return;var i=p.indexOf("=");hash[i<0?p:p.slice(0,i)]=i<0?"1":decodeURIComponent(p.slice(i+1));});
        if(msel&&dsel&&(hash.m||hash.dev)){if(hash.m){msel.value=hash.m;fillDays();}if(hash.day)dsel.value=hash.day;if(vsel&&hash.dev)vsel.value=hash.dev;choose(true);}
        if(hash.all)fitAll(true);
        if(hash.z)zoomCentre(+hash.z,true);
        if(hash.tl&&tlBox){var go=tlBox.querySelectorAll("li.go")[+hash.tl];if(go)go.click();}
        document.documentElement.setAttribute("data-ready",String(Math.round(performance.now())));
        })();
        """#
}
